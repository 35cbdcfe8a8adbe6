/**
 * Optional packages are imported on first use: a missing one becomes an error naming the
 * package to install, any other load failure keeps its cause.
 */

/** Whether `error` says the module itself (not one of its own imports) could not be found. */
export function isModuleNotFound(error: unknown, packageName: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  return typeof message === 'string' && message.includes(`'${packageName}'`);
}

/**
 * `load()`, with a failure handed to `onMissing(missing)`, which returns the error to throw:
 * `missing` is true when the package is not installed.
 */
export async function importOptional<Module>(options: {
  packageName: string;
  load: () => Promise<Module>;
  toError: (details: { missing: boolean; cause: unknown }) => Error;
}): Promise<Module> {
  try {
    return await options.load();
  } catch (cause) {
    throw options.toError({ missing: isModuleNotFound(cause, options.packageName), cause });
  }
}
