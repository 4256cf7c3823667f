/** The value after `--name` on the command line, or `fallback` when the flag is absent (the e5 benches' options). */
export function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : fallback;
}
