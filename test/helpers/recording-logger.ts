/** A logger (the signer loop's shape) that keeps each line as `level message {fields}` for a test to read. */
export function recordingLogger(lines: string[]): { info(obj: object, msg: string): void; warn(obj: object, msg: string): void; error(obj: object, msg: string): void } {
  const keep = (level: string) => (obj: object, msg: string) => {
    lines.push(`${level} ${msg} ${JSON.stringify(obj)}`);
  };
  return { info: keep('info'), warn: keep('warn'), error: keep('error') };
}
