// Independent steps run at once, and the caller goes on only when every one has ended, so no write of a
// failed step's siblings is still in flight when the reconcile reports the failure.

/** The values of `steps`, in order; when any failed, the first failure in order, after all have ended. */
export async function allOrFirstFailure<T extends readonly unknown[]>(steps: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const settled = await Promise.allSettled(steps);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as unknown as T;
}
