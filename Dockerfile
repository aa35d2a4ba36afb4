# The coder-k8s operator image: Node.js 20, production dependencies, TypeScript run through tsx.
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY bin ./bin
COPY src ./src
COPY generated ./generated
COPY tsconfig.json ./
USER 65532:65532
ENTRYPOINT ["node", "bin/coder-k8s.js"]
