// A JSON Schema (OpenAPI v3 subset) as the stages pass it around: plain parsed YAML.
export type JsonSchema = { [key: string]: unknown };
