# The one image compose.yaml runs for every Python service: the referee, the workers, beat
# (`pitch-arena ...`), the web arena, the bot hosts and the example bots (`pitch-bot run ...`).
FROM python:3.11-slim
# bubblewrap: the bot hosts' sandbox (hosting/).
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY sdk ./sdk
COPY pyproject.toml README.md ./
COPY referee ./referee
COPY store ./store
COPY competitions ./competitions
COPY workers ./workers
COPY web ./web
COPY hosting ./hosting
COPY cli ./cli
RUN pip install --no-cache-dir ./sdk . && useradd --create-home arena && install -d -o arena /var/lib/pitch-arena /var/lib/pitch-arena/artifacts
USER arena
WORKDIR /home/arena
CMD ["pitch-arena", "--help"]
