import { concurrencyPart } from '#support/concurrency';

concurrencyPart(4);
