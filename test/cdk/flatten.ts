/**
 * The service's stacks read as one template: the root's resources and every nested stack's (the
 * rooms, lib/cdk/rooms.ts), with the references across them followed to what they name. A room's
 * `{ Ref: <parameter> }` becomes the value the root passes it, and the root's
 * `{ Fn::GetAtt: [<room>, Outputs.<name>] }` the value the room outputs, so an assertion written
 * against one stack (a method's integration names its function; a policy names the table) holds as it
 * did wherever CloudFormation puts the resources. The nested stack resources themselves are left out:
 * they are how the templates are packaged, not parts of the service.
 */

type Template = {
  Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
  Parameters?: Record<string, unknown>;
  Outputs?: Record<string, { Value: unknown }>;
  [section: string]: unknown;
};

/** One nested stack: its resource's logical id in the root, and its template. */
export interface NestedTemplate {
  logicalId: string;
  template: Template;
}

export function flatten(root: Template, nested: readonly NestedTemplate[]): Template {
  // Each template may name only what it holds: a reference across stacks other than a parameter or an
  // output is a template CloudFormation refuses, which the merged view below would otherwise hide.
  assertSelfContained('the root', root);
  for (const n of nested) assertSelfContained(n.logicalId, n.template);
  const byId = new Map(nested.map((n) => [n.logicalId, n]));
  const resources: Template['Resources'] = {};
  const add = (id: string, resource: Template['Resources'][string]) => {
    if (id in resources) throw new Error(`logical id ${id} is in two of the stacks: the flattened view would lose one`);
    resources[id] = resource;
  };

  const fromRoot = (value: unknown): unknown =>
    map(value, (v) => {
      const getAtt = (v as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt'];
      const room = getAtt && byId.get(getAtt[0]);
      if (!room || !getAtt[1].startsWith('Outputs.')) return undefined;
      const output = room.template.Outputs?.[getAtt[1].slice('Outputs.'.length)];
      if (!output) throw new Error(`${getAtt[0]} has no output ${getAtt[1]}`);
      return fromRoom(room, output.Value);
    });
  const fromRoom = (room: NestedTemplate, value: unknown): unknown =>
    map(value, (v) => {
      const name = (v as { Ref?: string }).Ref;
      if (name === undefined || !room.template.Parameters?.[name]) return undefined;
      const passed = (root.Resources[room.logicalId]?.Properties?.Parameters as Record<string, unknown> | undefined)?.[name];
      if (passed === undefined) throw new Error(`the root passes ${room.logicalId} no ${name}`);
      return fromRoot(passed);
    });

  for (const [id, resource] of Object.entries(root.Resources))
    if (!byId.has(id)) add(id, fromRoot(resource) as Template['Resources'][string]);
  for (const room of nested)
    for (const [id, resource] of Object.entries(room.template.Resources))
      add(id, fromRoom(room, resource) as Template['Resources'][string]);
  return { ...root, Resources: resources, Outputs: fromRoot(root.Outputs ?? {}) as Template['Outputs'] };
}

/** Copies `value`, replacing every object `replace` gives a value for (it answers undefined to leave one as it is). */
function map(value: unknown, replace: (v: object) => unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => map(v, replace));
  if (value === null || typeof value !== 'object') return value;
  const replaced = replace(value);
  if (replaced !== undefined) return replaced;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, map(v, replace)]));
}

/** Throws when `template` names (Ref, Fn::GetAtt, Fn::Sub, DependsOn) a logical id it neither holds nor takes as a parameter. */
export function assertSelfContained(name: string, template: Template): void {
  const own = (id: string) => id.startsWith('AWS::') || id in template.Resources || id in (template.Parameters ?? {});
  const missing = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (value === null || typeof value !== 'object') return;
    for (const [key, v] of Object.entries(value)) {
      if (key === 'Ref' && typeof v === 'string' && !own(v)) missing.add(v);
      if (key === 'Fn::GetAtt' && Array.isArray(v) && !(String(v[0]) in template.Resources)) missing.add(String(v[0]));
      if (key === 'Fn::Sub') {
        const [text, vars] = Array.isArray(v) ? [String(v[0]), (v[1] ?? {}) as Record<string, unknown>] : [String(v), {}];
        for (const [, ref] of text.matchAll(/\$\{([^!}][^}]*)\}/g)) {
          const id = ref!.split('.')[0]!;
          if (!(id in vars) && !own(id)) missing.add(id);
        }
      }
      visit(v);
    }
  };
  for (const resource of Object.values(template.Resources)) {
    visit(resource);
    for (const id of [(resource as { DependsOn?: string | string[] }).DependsOn ?? []].flat())
      if (!(id in template.Resources)) missing.add(id);
  }
  visit(template.Outputs ?? {});
  if (missing.size > 0) throw new Error(`${name} names what it does not hold: ${[...missing].join(', ')}`);
}
