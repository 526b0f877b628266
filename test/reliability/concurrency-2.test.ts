import { concurrencyPart } from '#support/concurrency';

concurrencyPart(2);
