/**
 * The CDK app (cdk.json runs it with tsx). Stage with `-c stage=dev|prod` (default dev).
 *   npm run synth                      # cdk synth --quiet: no credentials, network or Docker needed
 *   npm run deploy -- -c stage=prod    # bootstrap (once per account/region) + deploy
 */
// First: keeps the AWS SDK's Node 20 notice out of `cdk synth` (the app loads shared code that builds SDK clients).
import '#lib/sdkNotice';
import { buildApp } from '#cdk/app';

buildApp().app.synth();
