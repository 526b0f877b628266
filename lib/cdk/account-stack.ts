import { RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { CfnAccount } from 'aws-cdk-lib/aws-apigateway';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';

/** The stack of the account-wide setting, deployed once per account and Region by `npm run bootstrap`. */
export const ACCOUNT_STACK_NAME = 'ProjectLabelServiceAccountSettings';

/**
 * API Gateway's CloudWatch role: one per account and Region (`AWS::ApiGateway::Account`), which every
 * REST API of that Region writes its execution and access logs through, ours and anyone else's. It
 * lives here rather than in a stage's stack: two stages each setting it would overwrite each other,
 * and destroying one would delete the role the other stage (and any other API) logs through. Both the
 * role and the setting are retained when this stack is destroyed, for the same reason.
 */
export class AccountSettingsStack extends Stack {
  readonly role: Role;

  constructor(scope: Construct, id: string, props: StackProps = {}) {
    super(scope, id, props);
    this.role = new Role(this, 'ApiGatewayCloudWatchRole', {
      description: "API Gateway's account-wide role for writing REST APIs' execution and access logs to CloudWatch Logs",
      assumedBy: new ServicePrincipal('apigateway.amazonaws.com'),
      managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName('service-role/AmazonAPIGatewayPushToCloudWatchLogs')],
    });
    this.role.applyRemovalPolicy(RemovalPolicy.RETAIN);
    const account = new CfnAccount(this, 'ApiGatewayAccount', { cloudWatchRoleArn: this.role.roleArn });
    account.applyRemovalPolicy(RemovalPolicy.RETAIN);
  }
}
