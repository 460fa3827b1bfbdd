import 'server-only';
import { cache } from 'react';
import { heavyRead } from '@/server/db';
import { type DayWindow, getSessionCosts } from '@/server/queries/analytics';

/** Session costs of a window, read once per request however many panels show them. */
export const sessionCosts = cache((project: string, window: DayWindow) => heavyRead((d) => getSessionCosts(d, project, window)));
