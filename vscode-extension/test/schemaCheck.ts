// Compares TypeScript interfaces with a JSON Schema: the same property names, the same required ones (a
// property is optional in TypeScript exactly when the schema does not require it), and the same JSON types,
// recursively through nested objects and arrays. The TypeScript side is read with the compiler's own parser.
import * as fs from 'fs';
import ts from 'typescript';

type Schema = Record<string, unknown>;

/** A property's TypeScript type, as far as JSON goes. */
interface TsType { kinds: Set<string>; object?: ts.TypeElement[] | 'map'; items?: TsType }

export class SchemaChecker {
  private readonly interfaces = new Map<string, ts.InterfaceDeclaration>();
  readonly mismatches: string[] = [];

  /**
   * {@code olderServers}: paths (as in the messages) the schema requires that the extension takes as
   * optional, since servers from before the field do not send it.
   */
  constructor(sourceFile: string, private readonly root: Schema, private readonly olderServers: Set<string> = new Set()) {
    const source = ts.createSourceFile(sourceFile, fs.readFileSync(sourceFile, 'utf8'), ts.ScriptTarget.ES2022, true);
    source.forEachChild((node) => {
      if (ts.isInterfaceDeclaration(node)) this.interfaces.set(node.name.text, node);
    });
  }

  /** Checks interface {@code name} against the schema at {@code schema}; mismatches are collected. */
  check(name: string, schema: Schema = this.root): string[] {
    const declaration = this.interfaces.get(name);
    if (!declaration) throw new Error(`no interface ${name}`);
    this.compareObject(name, [...declaration.members], schema);
    return this.mismatches;
  }

  private resolve(schema: Schema): Schema {
    let current = schema;
    for (let depth = 0; typeof current.$ref === 'string' && depth < 32; depth++) {
      const pointer = current.$ref as string;
      if (!pointer.startsWith('#/')) throw new Error(`only local $refs are read: ${pointer}`);
      current = pointer.slice(2).split('/').reduce<Schema>((node, key) => node[key.replace(/~1/g, '/').replace(/~0/g, '~')] as Schema,
        this.root);
    }
    return current;
  }

  /** The schema's JSON types ("integer" counts as "number"), from type, const, enum or its shape. */
  private schemaKinds(schema: Schema): Set<string> {
    const kinds = new Set<string>();
    const add = (type: string): void => void kinds.add(type === 'integer' ? 'number' : type);
    if (Array.isArray(schema.type)) (schema.type as string[]).forEach(add);
    else if (typeof schema.type === 'string') add(schema.type);
    else if ('const' in schema) add(schema.const === null ? 'null' : typeof schema.const);
    else if (Array.isArray(schema.enum)) (schema.enum as unknown[]).forEach((v) => add(v === null ? 'null' : typeof v));
    else if (Array.isArray(schema.oneOf) || Array.isArray(schema.anyOf)) {
      for (const alternative of (schema.oneOf ?? schema.anyOf) as Schema[]) this.schemaKinds(this.resolve(alternative)).forEach(add);
    } else if (schema.properties) add('object');
    else if (schema.items) add('array');
    return kinds;
  }

  private tsType(node: ts.TypeNode): TsType {
    if (ts.isUnionTypeNode(node)) {
      const parts = node.types.map((t) => this.tsType(t));
      const merged: TsType = { kinds: new Set(parts.flatMap((p) => [...p.kinds])) };
      const withShape = parts.find((p) => p.object !== undefined || p.items !== undefined);
      return { ...merged, object: withShape?.object, items: withShape?.items };
    }
    if (ts.isLiteralTypeNode(node)) {
      if (node.literal.kind === ts.SyntaxKind.NullKeyword) return { kinds: new Set(['null']) };
      if (ts.isStringLiteral(node.literal)) return { kinds: new Set(['string']) };
      if (ts.isNumericLiteral(node.literal)) return { kinds: new Set(['number']) };
      return { kinds: new Set(['boolean']) };
    }
    if (ts.isTypeReferenceNode(node) && node.typeName.getText() === 'Record' && node.typeArguments?.[1]?.kind === ts.SyntaxKind.UnknownKeyword) {
      return { kinds: new Set(['object']) }; // an object this extension does not look into
    }
    if (ts.isArrayTypeNode(node)) return { kinds: new Set(['array']), items: this.tsType(node.elementType) };
    if (ts.isTypeLiteralNode(node)) return { kinds: new Set(['object']), object: [...node.members] };
    if (ts.isTypeReferenceNode(node)) {
      const name = node.typeName.getText();
      if (name === 'Record') return { kinds: new Set(['object']), object: 'map' };
      const declaration = this.interfaces.get(name);
      if (declaration) return { kinds: new Set(['object']), object: [...declaration.members] };
    }
    switch (node.kind) {
      case ts.SyntaxKind.StringKeyword: return { kinds: new Set(['string']) };
      case ts.SyntaxKind.NumberKeyword: return { kinds: new Set(['number']) };
      case ts.SyntaxKind.BooleanKeyword: return { kinds: new Set(['boolean']) };
      default: throw new Error(`a type this check does not read: ${node.getText()}`);
    }
  }

  /** The (TypeScript declaration, schema) pairs being compared: a recursive type (a tree's nodes) ends there. */
  private readonly comparing = new Map<ts.Node, Set<Schema>>();

  private compareObject(where: string, members: ts.TypeElement[], rawSchema: Schema): void {
    const schema = this.resolve(rawSchema);
    const declaration = members[0]?.parent;
    const schemas = declaration ? this.comparing.get(declaration) ?? new Set<Schema>() : new Set<Schema>();
    if (schemas.has(schema)) return;
    schemas.add(schema);
    if (declaration) this.comparing.set(declaration, schemas);
    try {
      this.compareMembers(where, members, schema);
    } finally {
      schemas.delete(schema);
    }
  }

  private compareMembers(where: string, members: ts.TypeElement[], schema: Schema): void {
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    const required = new Set((schema.required ?? []) as string[]);
    const seen = new Set<string>();
    for (const member of members) {
      if (!ts.isPropertySignature(member) || !member.type) continue;
      const name = member.name.getText();
      seen.add(name);
      const path = `${where}.${name}`;
      if (!(name in properties)) {
        this.mismatches.push(`${path}: in the TypeScript types, not in the schema`);
        continue;
      }
      const optional = member.questionToken !== undefined;
      if (optional === required.has(name) && !(optional && this.olderServers.has(path))) {
        this.mismatches.push(`${path}: ${optional ? 'optional in TypeScript, required' : 'required in TypeScript, optional'} in the schema`);
      }
      this.compareType(path, this.tsType(member.type), properties[name]);
    }
    for (const name of Object.keys(properties)) {
      if (!seen.has(name)) this.mismatches.push(`${where}.${name}: in the schema, not in the TypeScript types`);
    }
  }

  private compareType(path: string, type: TsType, rawSchema: Schema): void {
    const schema = this.resolve(rawSchema);
    const expected = [...this.schemaKinds(schema)].sort().join('|');
    const actual = [...type.kinds].sort().join('|');
    if (expected !== actual) {
      this.mismatches.push(`${path}: ${actual} in TypeScript, ${expected || 'no type'} in the schema`);
      return;
    }
    if (type.items && schema.items) this.compareType(`${path}[]`, type.items, schema.items as Schema);
    if (Array.isArray(type.object)) this.compareObject(path, type.object, schema);
    if (type.object === 'map' && typeof schema.additionalProperties === 'object') {
      const values = this.resolve(schema.additionalProperties as Schema);
      if (![...this.schemaKinds(values)].every((k) => k === 'string')) {
        this.mismatches.push(`${path}: a map of strings in TypeScript, of ${[...this.schemaKinds(values)].join('|')} in the schema`);
      }
    }
  }
}
