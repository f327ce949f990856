/**
 * The store of the test authorization server (test/support/authorization-server.ts): its tokens and
 * grants in a Map for the life of one server, each dropped when it expires.
 *
 * oidc-provider's own in-memory adapter does the same, but it is the quick-start default, which
 * prints a warning on every start that it must not be used in production. A test server is meant
 * to forget everything when it stops, so it names its store explicitly; each server also keeps its
 * own records, where the default adapter shares one store across every provider in the process.
 */
import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';

interface StoredRecord {
  payload: AdapterPayload;
  /** Epoch milliseconds; undefined for records that do not expire. */
  expiresAt: number | undefined;
}

export function memoryStore(): AdapterFactory {
  /** Keyed `Model:id`: oidc-provider asks by model name and id. */
  const records = new Map<string, StoredRecord>();

  const live = (key: string): AdapterPayload | undefined => {
    const record = records.get(key);
    if (record?.expiresAt !== undefined && record.expiresAt <= Date.now()) {
      records.delete(key);
      return undefined;
    }
    return record?.payload;
  };
  /** The first live record of a model whose payload matches (the lookups by uid and user code). */
  const findWhere = (model: string, matches: (payload: AdapterPayload) => boolean): AdapterPayload | undefined => {
    for (const key of records.keys()) {
      const payload = key.startsWith(`${model}:`) ? live(key) : undefined;
      if (payload !== undefined && matches(payload)) return payload;
    }
    return undefined;
  };

  return (model: string): Adapter => {
    const keyOf = (id: string) => `${model}:${id}`;
    return {
      async upsert(id, payload, expiresIn) {
        records.set(keyOf(id), { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : undefined });
      },
      async find(id) {
        return live(keyOf(id));
      },
      async findByUid(uid) {
        return findWhere(model, (payload) => payload.uid === uid);
      },
      async findByUserCode(userCode) {
        return findWhere(model, (payload) => payload.userCode === userCode);
      },
      async consume(id) {
        const payload = live(keyOf(id));
        if (payload !== undefined) payload.consumed = Math.floor(Date.now() / 1000);
      },
      async destroy(id) {
        records.delete(keyOf(id));
      },
      async revokeByGrantId(grantId) {
        // A grant's tokens may be of any model: revoking the grant revokes them all.
        for (const [key, record] of records) if (record.payload.grantId === grantId) records.delete(key);
      },
    };
  };
}
