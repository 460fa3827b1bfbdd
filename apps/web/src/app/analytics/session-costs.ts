import 'server-only';
import { cache } from 'react';
import { db } from '@/server/db';
import { type DayWindow, getSessionCosts } from '@/server/queries/analytics';

/** Session costs of a window, read once per request however many panels show them. */
export const sessionCosts = cache((project: string, window: DayWindow) => getSessionCosts(db(), project, window));
