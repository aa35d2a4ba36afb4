// Resolves the operator's own relative imports of TypeScript files (`./x.ts`, `../y/z.ts` from a module under
// this package's src/, generated/ or bin/) to the file they name, without Node's default resolution. That one
// stats each file, follows symbolic links and looks up the package scope again for every one of the 850 or
// so imports start-up makes (about 30 ms of CPU in all). Every other import (packages, Node's own modules, a
// specifier with a query) takes Node's path. The package is `"type": "module"`, so its .ts files are ES modules.
import * as nodeModule from 'node:module';

const own = ['src/', 'generated/', 'bin/'].map((dir) => new URL(`../${dir}`, import.meta.url).href);

nodeModule.registerHooks({
  resolve(specifier, context, nextResolve) {
    const parent = context.parentURL;
    if (
      (specifier.startsWith('./') || specifier.startsWith('../')) &&
      specifier.endsWith('.ts') &&
      parent !== undefined &&
      own.some((dir) => parent.startsWith(dir))
    ) {
      const url = new URL(specifier, parent).href;
      if (own.some((dir) => url.startsWith(dir))) return { url, format: 'module-typescript', shortCircuit: true };
    }
    return nextResolve(specifier, context);
  },
});
