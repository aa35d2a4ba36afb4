// Stage: generated/coder-api.ts, the types of the Coder REST subset, from schemas/coder-api/openapi.yaml.
import openapiTS, { astToString } from 'openapi-typescript';
import { pathToFileURL } from 'node:url';
import { coderApiFile } from './paths.ts';

export async function coderApiTypesFile(): Promise<string> {
  const ast = await openapiTS(pathToFileURL(coderApiFile), {
    alphabetize: false,
    exportType: false,
    immutable: false,
    rootTypes: false,
    additionalProperties: false,
  });
  return astToString(ast);
}
