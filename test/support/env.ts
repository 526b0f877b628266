import { inject } from 'vitest';
import { useLocalDatabase } from '#local/database';

// Point the shared DocumentClient of this test worker at the run's DynamoDB Local.
useLocalDatabase(inject('dynamodbPort'));
process.env.TABLE_NAME = '';
