# The coder-k8s operator image: Node.js 24 runs the TypeScript sources itself (type stripping), so the
# image holds production dependencies, package.json, bin/, src/ and generated/, and nothing else.
# test/e2e/image-layout.test.ts starts this layout read-only as uid 65532; keep it in step with this file.
# The base image by tag and digest (<tag>@sha256:<digest> of the multi-platform index), so a rebuild
# starts from the same bytes; test/unit/deploy/dockerfile-base-image.test.ts checks every FROM for it.
# docs/how-to/build-image.md says how to bump it.
ARG NODE_IMAGE=node:24.20.0-trixie-slim@sha256:50c3b2f6988dfc307b86e5301d69611af31f4789bdf232863b07d3b02fe55ae0

FROM ${NODE_IMAGE} AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM ${NODE_IMAGE}
# tini is PID 1: it forwards SIGTERM to Node (which then drains and gives up the lease) and reaps zombies;
# -s makes it a subreaper too when it is not PID 1 (a pod with shareProcessNamespace).
# npm and corepack are not needed to run the operator; removing them leaves less to patch.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/* /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack \
      /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack
WORKDIR /app
# The compile cache (relative to /app) holds every module with its types stripped, filled as the image's
# user (Node keys the cache by uid): the operator then never loads the TypeScript stripper (about 28 MiB).
ENV NODE_ENV=production NODE_COMPILE_CACHE=.compile-cache
COPY --from=dependencies /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY src ./src
COPY generated ./generated
RUN install -d -o 65532 -g 65532 .compile-cache
USER 65532:65532
# With the ENTRYPOINT's Node.js flags: V8 keys the cache by its flags, and ignores a cache filled under others.
RUN node --max-semi-space-size=4 --max-opt=2 --heap-growing-percent=30 bin/fill-compile-cache.js
# A 4 MiB young generation (V8 grows it to 32 MiB): watch events are short-lived garbage, and a bigger
# one only holds more resident memory (RSS must not grow with Secrets the operator never uses).
# --max-opt=2 stops V8's compilers at Maglev: TurboFan, the top tier, held about 6 MiB idle and 8 MiB at the
# peak, for no CPU the operator's work (mostly JSON, TLS and HTTP, native code) measurably saved.
# --heap-growing-percent=30: a full collection once the old generation has grown by 30%. V8 picks that factor
# itself, up to a cap that follows the heap's limit, which Node.js sets from the container's: 1.3 under the
# manifest's 512 MiB, 4 without a limit (where the operator peaked at 154 MiB instead of 128 at 1,000 control
# planes). The flag keeps its memory the same under any limit; it caps nothing.
ENTRYPOINT ["/usr/bin/tini", "-s", "--", "node", "--max-semi-space-size=4", "--max-opt=2", "--heap-growing-percent=30", "bin/coder-k8s.js"]
