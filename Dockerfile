# The arena server and the Python sample bots in one image:
#   docker build -t thirteen-arena .
#   docker run thirteen-arena arena serve --host 0.0.0.0 --redis-url redis://redis:6379/0
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# bubblewrap is the hosted bots' sandbox (util-linux's setpriv, unshare and prlimit and the mount
# command come with the base image). It is used only by a node started as root with the
# privileges README lists ("Hosted bots in containers"); as the default user below, a node
# serves everything else and leaves hosted bots to nodes that can run them.
RUN apt-get update \
    && apt-get install -y --no-install-recommends bubblewrap \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY pyproject.toml README.md ./
COPY arena ./arena
COPY proto ./proto
COPY sample_bots/python ./sample_bots/python
RUN pip install . && useradd --create-home --uid 10001 arena
USER arena

# gRPC for bots and tools; the web UI and its JSON API.
EXPOSE 50051 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s \
    CMD python -c "import grpc, sys; from grpc_health.v1 import health_pb2 as h, health_pb2_grpc as g; \
sys.exit(g.HealthStub(grpc.insecure_channel('127.0.0.1:50051')).Check(h.HealthCheckRequest(), timeout=2).status != 1)"
CMD ["arena", "serve", "--host", "0.0.0.0", "--port", "50051", "--redis-url", "redis://redis:6379/0"]
