import { contentionCase } from '#support/bulkContention';

contentionCase(1);
