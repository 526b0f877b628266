import { contentionCase } from '#support/bulkContention';

contentionCase(0);
