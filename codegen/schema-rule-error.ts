// A schema that breaks a rule: the CLI prints the message alone, without a stack trace.
export class SchemaRuleError extends Error {}
