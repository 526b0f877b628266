/**
 * The CDK app (cdk.json runs it with tsx). Stage with `-c stage=dev|prod` (default dev).
 *   npm run synth                      # cdk synth --quiet: no credentials, network or Docker needed
 *   npm run bootstrap                  # once per account and Region: CDK's bootstrap, API Gateway's CloudWatch role
 *   npm run deploy -- -c stage=prod    # the stage's stack alone
 */
// First: keeps the AWS SDK's Node 20 notice out of `cdk synth` (the app loads shared code that builds SDK clients).
import '#lib/sdkNotice';
import { buildApp } from '#cdk/app';

buildApp().app.synth();
