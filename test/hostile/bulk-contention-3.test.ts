import { contentionCase } from '#support/bulkContention';

contentionCase(2);
