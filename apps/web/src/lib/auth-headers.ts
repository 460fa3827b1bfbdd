/** The header the launcher (scripts/serve.ts) puts the client's address in, replacing any a client sent. */
export const CLIENT_IP_HEADER = 'x-guardtrace-client-ip';

/** The header a sign-up request carries its invitation token in (src/server/auth-config.ts checks it). */
export const INVITATION_HEADER = 'x-guardtrace-invitation';
