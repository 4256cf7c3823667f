/** The example GraphQL request `npm start` prints, as one line for a POSIX shell. */
export function curlLine(url: string, instance: string, question: string): string {
  const query = `query Ask($q: String!) { ask(instance: ${JSON.stringify(instance)}, question: $q) { answer { text citations { marker path startLine endLine url } } route { top reasons } } }`;
  const body = JSON.stringify({ query, variables: { q: question } });
  // Single quotes keep the shell off the JSON; a quote inside it is closed, escaped and reopened.
  return `curl -s ${url}/graphql -H 'content-type: application/json' -d '${body.replace(/'/g, `'\\''`)}'`;
}
