import { TYPE_BASE } from '#wire/problems';

/**
 * What the API's two documents (lib/openapi, lib/asyncapi) say alike of whose they are and where a
 * deployed stack lives: their `info.license` and `info.contact`, and the region of their servers.
 */

/** The project is private (package.json): no licence is granted. OpenAPI 3.1 adds an SPDX `identifier` (a LicenseRef: none is listed). */
export const LICENSE_NAME = 'Proprietary (all rights reserved)';
export const LICENSE_IDENTIFIER = 'LicenseRef-Proprietary';

/** The project's own: the namespace its problem types live in (wire/problems.ts); the address is a placeholder for its maintainers'. */
export const CONTACT = {
  name: 'Project and Label Management Service maintainers',
  url: new URL(TYPE_BASE).origin,
  email: 'project-label-service@example.com',
};

/** The AWS region in a deployed stack's addresses (server variable): the stack is region-agnostic, deployed where the caller's AWS profile says. */
export const REGION_VARIABLE = { default: 'eu-west-1', description: 'The AWS region the stack is deployed in' };
