import 'server-only';
import { type AuditActor, normalizeModel, PRICE_TABLE, type PrismaClient, recordAudit } from '@guardtrace/db';

/** One row of Settings > Model prices: the price in use for a model and where it comes from. */
export interface PriceRowDto {
  model: string;
  inputPerMTok: number;
  cachedInputPerMTok: number;
  outputPerMTok: number;
  /** The built-in entry's page and date, or null for a project price. */
  source: { url: string; checked: string } | null;
  /** The built-in price this project's price replaces, if any. */
  builtIn: { inputPerMTok: number; cachedInputPerMTok: number; outputPerMTok: number } | null;
}

/** Every model with a price in this project: its own prices first, then the built-in table's others. */
export async function getModelPrices(db: PrismaClient, projectId: string): Promise<PriceRowDto[]> {
  const own = await db.modelPrice.findMany({ where: { projectId }, orderBy: { model: 'asc' } });
  const table = new Map(PRICE_TABLE.map((e) => [e.model, e]));
  const price = (p: { inputPerMTok: number; cachedInputPerMTok: number; outputPerMTok: number }) => ({
    inputPerMTok: p.inputPerMTok,
    cachedInputPerMTok: p.cachedInputPerMTok,
    outputPerMTok: p.outputPerMTok,
  });
  const rows: PriceRowDto[] = own.map((o) => {
    const e = table.get(o.model);
    return { model: o.model, ...price(o), source: null, builtIn: e ? price(e) : null };
  });
  const overridden = new Set(own.map((o) => o.model));
  for (const e of PRICE_TABLE) {
    if (!overridden.has(e.model)) rows.push({ model: e.model, ...price(e), source: { url: e.source, checked: e.checked }, builtIn: null });
  }
  return rows;
}

export interface PriceInput {
  model: string;
  inputPerMTok: number;
  cachedInputPerMTok: number;
  outputPerMTok: number;
}

/** Sets this project's price of a model (stored under its normalised name), logged with the previous one. */
export async function setModelPrice(db: PrismaClient, projectId: string, input: PriceInput, actor: AuditActor | null = null): Promise<string | null> {
  const model = normalizeModel(input.model);
  if (!model) throw new RangeError('model: a name is required');
  const price = { inputPerMTok: input.inputPerMTok, cachedInputPerMTok: input.cachedInputPerMTok, outputPerMTok: input.outputPerMTok };
  return db.$transaction(async (tx) => {
    if (!(await tx.project.findUnique({ where: { id: projectId }, select: { id: true } }))) return null;
    const before = await tx.modelPrice.findUnique({ where: { projectId_model: { projectId, model } } });
    await tx.modelPrice.upsert({
      where: { projectId_model: { projectId, model } },
      create: { projectId, model, ...price },
      update: { ...price, updatedAt: new Date() },
    });
    await recordAudit(tx, {
      projectId,
      actor,
      action: 'price.set',
      target: model,
      details: {
        ...price,
        from: before ? { inputPerMTok: before.inputPerMTok, cachedInputPerMTok: before.cachedInputPerMTok, outputPerMTok: before.outputPerMTok } : null,
      },
    });
    return model;
  });
}

/** Removes this project's price of a model (the built-in one, if any, applies again). */
export async function removeModelPrice(db: PrismaClient, projectId: string, model: string, actor: AuditActor | null = null): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const gone = await tx.modelPrice.deleteMany({ where: { projectId, model } });
    if (gone.count === 0) return false;
    await recordAudit(tx, { projectId, actor, action: 'price.removed', target: model });
    return true;
  });
}
