/** Configuration read once, at cold start. */

/** The value of environment variable `name`, or an error that names it. */
export function requireEnv(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const value = env[name];
  if (!value) throw new Error(`environment variable ${name} is required`);
  return value;
}
