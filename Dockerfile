# kasir's container image: production dependencies and the compiled server in two build stages, run from a slim
# Node image as the unprivileged `node` user. `node scripts/replay-dockerfile.mjs` (run by .ci/run) replays this file's
# stages, in order, on a machine with no container engine, and starts the result: keep every RUN relative to WORKDIR.

# Production dependencies only (better-sqlite3 compiles here when no prebuilt binary matches).
FROM node:20-bookworm AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

# The compiled server: dist/ with its data files and the dashboard's assets.
FROM node:20-bookworm AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
RUN npm run build

# What runs: read-only code owned by root, data in the node user's home (mount a volume there, or use
# DATABASE_URL + S3_BUCKET and keep nothing on the container's disk).
FROM node:20-bookworm-slim AS run
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8402 DATA_DIR=/home/node/data
WORKDIR /app
COPY package.json ./
COPY bin ./bin
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
USER node
EXPOSE 8402
VOLUME /home/node/data
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8402)+'/healthz').then((r)=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--max-old-space-size=1024", "dist/main.js"]
