/**
 * The timeouts of the AWS clients besides DynamoDB's (store/client.ts has its own): KMS, SQS and EventBridge answer in
 * milliseconds deployed, so a call that takes seconds has failed. The SDK's default is to wait without end: a call that
 * hung held its request or batch to Lambda's timeout, and the SDK's retries never began.
 */
export const AWS_CLIENT_TIMEOUTS = { requestHandler: { connectionTimeout: 1_000, requestTimeout: 5_000 } } as const;
