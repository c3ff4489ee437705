import type { Db } from '../schema/index.js';

export interface StaticPrice {
  symbol: string;
  price_usd: string;
  updated_at: Date;
}

export async function listStaticPrices(db: Db): Promise<StaticPrice[]> {
  return db.selectFrom('static_prices').selectAll().orderBy('symbol').execute();
}

export async function upsertStaticPrice(db: Db, symbol: string, priceUsd: string, at: Date): Promise<StaticPrice> {
  return db
    .insertInto('static_prices')
    .values({ symbol, price_usd: priceUsd, updated_at: at })
    .onConflict((conflict) => conflict.column('symbol').doUpdateSet({ price_usd: priceUsd, updated_at: at }))
    .returningAll()
    .executeTakeFirstOrThrow();
}
