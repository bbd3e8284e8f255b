import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { SchemaChecker } from './schemaCheck';

// out/test/ -> the extension's directory
const extension = path.join(__dirname, '..', '..');
const types = path.join(extension, 'src', 'openmpTree.ts');
/** The schema file of the report module: the one truth about jompd-inspect/1. */
const reportSchema = path.join(extension, '..', 'report', 'src', 'main', 'resources', 'dev', 'jompd', 'report',
  'jompd-inspect.schema.json');
/** README's table as a schema (with what JsonReport writes beyond it), for as long as the report module lacks one. */
const readmeSchema = path.join(extension, 'test', 'readme-inspect.schema.json');

/** Required in the report module's schema, optional here: servers from before the report module omit them. */
const NEWER_THAN_SOME_SERVERS = new Set(['InspectReport.target.openmp', 'InspectReport.target.runtimeRead', 'InspectReport.regions[].teamPath',
  'InspectReport.regions[].function.displayName', 'InspectReport.threads[].name', 'InspectReport.threads[].teamPath',
  'InspectReport.threads[].tasks[].id', 'InspectReport.threads[].tasks[].kind', 'InspectReport.threads[].tasks[].status',
  'InspectReport.threads[].tasks[].function.displayName',
  // the tasks not started share InspectTask, whose report-module fields are optional for older servers' chains
  'InspectReport.tasksNotStarted.tasks[].task.id', 'InspectReport.tasksNotStarted.tasks[].task.kind',
  'InspectReport.tasksNotStarted.tasks[].task.status', 'InspectReport.tasksNotStarted.tasks[].task.function.displayName']);

function load(file: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
}

test('the TypeScript types of jompd-inspect/1 match the report module\'s JSON Schema', (t) => {
  if (!fs.existsSync(reportSchema)) {
    t.skip(`no ${path.relative(extension, reportSchema)} yet: checked against README's table only`);
    return;
  }
  assert.deepEqual(new SchemaChecker(types, load(reportSchema), NEWER_THAN_SOME_SERVERS).check('InspectReport'), []);
});

test('the TypeScript types of jompd-inspect/1 match README\'s table', () => {
  assert.deepEqual(new SchemaChecker(types, load(readmeSchema)).check('InspectReport'), []);
});

test('the check finds a missing, an extra, a wrongly optional and a wrongly typed property', () => {
  const schema = load(readmeSchema) as { $defs: Record<string, { properties: Record<string, unknown>; required: string[] }> };
  const thread = schema.$defs.thread;
  delete thread.properties.waitId;                       // TypeScript has it, the schema not
  thread.properties.affinity = { type: 'string' };       // the schema has it, TypeScript not
  thread.required.push('lwp');                           // optional in TypeScript, required in the schema
  thread.properties.gtid = { type: 'string' };           // number in TypeScript
  schema.$defs.toolData.properties.ptr = { type: 'integer' }; // nested, through a $ref
  const mismatches = new SchemaChecker(types, schema).check('InspectReport');
  assert.deepEqual(mismatches.sort(), [
    'InspectReport.regions[].toolData.ptr: string in TypeScript, number in the schema',
    'InspectReport.tasksNotStarted.tasks[].task.toolData.ptr: string in TypeScript, number in the schema',
    'InspectReport.threads[].affinity: in the schema, not in the TypeScript types',
    'InspectReport.threads[].gtid: number in TypeScript, string in the schema',
    'InspectReport.threads[].lwp: optional in TypeScript, required in the schema',
    'InspectReport.threads[].tasks[].toolData.ptr: string in TypeScript, number in the schema',
    'InspectReport.threads[].toolData.ptr: string in TypeScript, number in the schema',
    'InspectReport.threads[].waitId: in the TypeScript types, not in the schema',
  ]);
});

test('the TypeScript types of the parallel stacks match the report module\'s JSON Schema (stacks)', (t) => {
  if (!fs.existsSync(reportSchema)) {
    t.skip(`no ${path.relative(extension, reportSchema)}`);
    return;
  }
  const schema = load(reportSchema) as { properties: Record<string, Record<string, unknown>> };
  assert.deepEqual(new SchemaChecker(path.join(extension, 'src', 'parallelStacks.ts'), schema)
    .check('InspectStacks', schema.properties.stacks), []);
});

/** The job module's schema file: the one truth about jompd-job/1, which `jompd job --json` writes. */
const jobSchema = path.join(extension, '..', 'job', 'src', 'main', 'resources', 'dev', 'jompd', 'job', 'jompd-job.schema.json');

test('the TypeScript types of jompd-job/1 match the job module\'s JSON Schema', () => {
  assert.deepEqual(new SchemaChecker(path.join(extension, 'src', 'jobPicture.ts'), load(jobSchema)).check('JobDocument'), []);
});
