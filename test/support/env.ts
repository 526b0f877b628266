import { inject } from 'vitest';
import { useLocalDatabase } from '../../lib/local/database.ts';

// Point the shared DocumentClient of this test worker at the run's DynamoDB Local.
useLocalDatabase(inject('dynamodbPort'));
process.env.TABLE_NAME = '';
