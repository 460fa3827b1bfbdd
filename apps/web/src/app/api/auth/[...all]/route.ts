import { toNextJsHandler } from 'better-auth/next-js';
import { auth } from '@/server/accounts';

// better-auth's endpoints: sign-in, sign-up, sign-out, sessions, one-time sign-in links.
const handler = (request: Request) => toNextJsHandler(auth()).POST(request);

export const GET = handler;
export const POST = handler;
