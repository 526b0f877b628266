export const SCOPES = [
  'projects:read',
  'projects:write',
  'labels:read',
  'labels:write',
  'webhooks:read',
  'webhooks:write',
  'activity:read',
] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
