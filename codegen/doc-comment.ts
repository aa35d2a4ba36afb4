// How generated TypeScript carries a schema's text: as a one-line doc comment, which editors show on hover.

/** A one-line doc comment; `*\/` inside the text would end it early. */
export function docComment(text: string): string {
  return `/** ${text.replace(/\*\//g, '*\\/').replace(/\s+/g, ' ').trim()} */`;
}
