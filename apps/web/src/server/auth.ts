/** Whether `host` only accepts connections from this machine (scripts/serve.ts decides what to require by it). */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
