import { localStack } from './stack.ts';

import { useLocalDatabase } from '#local/database';

// Point the shared DocumentClient of this test worker at the run's DynamoDB Local, or, to run the
// HTTP suites against another local API (API_URL), at that API's database (TEST_DYNAMODB_PORT).
useLocalDatabase(Number(process.env.TEST_DYNAMODB_PORT) || localStack().dynamodbPort);
process.env.TABLE_NAME = '';
