/**
 * Imported first by every command-line entry point (npm start and the local tools through
 * lib/local/database.ts, the CDK app through bin/app.ts): the AWS SDK's notice about Node 20 would
 * bury their output, so it is turned off for them. Lambda runs nodejs22.x, where it never shows.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
