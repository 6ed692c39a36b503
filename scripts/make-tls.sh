#!/usr/bin/env bash
# Make the arena's TLS certificates with openssl (see docs/fleet.md, "TLS and who may relay").
#
#   scripts/make-tls.sh DIR [NAME...]
#
# In DIR (created if missing):
#   ca.pem, ca-key.pem          the arena's CA; kept when present, so a second run issues
#                               new certificates from the same CA.  Keep ca-key.pem off the
#                               servers: only ca.pem is deployed (to every service and bot).
#   server.pem, server-key.pem  the referees' server certificate, for every NAME (host names
#                               or IP addresses bots, workers, the web and the CLI dial;
#                               default: localhost 127.0.0.1 referee).
#   referee.pem, referee-key.pem  the referees' relay identity: a certificate for
#                               $PITCH_RELAY_PEER_NAME (default pitch-referee), for both
#                               ends of a relay (mutual TLS); give it to referees only.
# Certificates last $PITCH_TLS_DAYS days (default 825).
set -euo pipefail

if [[ $# -lt 1 || $1 == -* ]]; then
    echo "usage: $0 DIR [NAME...]   (NAME: a host name or IP address on the server certificate)" >&2
    exit 2
fi
dir=$1
shift
names=("$@")
[[ ${#names[@]} -gt 0 ]] || names=(localhost 127.0.0.1 referee)
peer=${PITCH_RELAY_PEER_NAME:-pitch-referee}
days=${PITCH_TLS_DAYS:-825}
mkdir -p "$dir"
umask 077

alt_names() {  # subjectAltName for the names given: IP: for addresses, DNS: otherwise
    local out="" name
    for name in "$@"; do
        if [[ $name =~ ^[0-9.]+$ || $name == *:* ]]; then out+="IP:$name,"; else out+="DNS:$name,"; fi
    done
    echo "${out%,}"
}

issue() {  # issue NAME CN SAN USAGE: a key and a certificate signed by the CA
    local name=$1 cn=$2 san=$3 usage=$4 ext
    ext=$(mktemp)
    printf 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=%s\nsubjectAltName=%s\n' \
        "$usage" "$san" > "$ext"
    openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=$cn" \
        -keyout "$dir/$name-key.pem" -out "$dir/$name.csr" 2>/dev/null
    openssl x509 -req -in "$dir/$name.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca-key.pem" -CAcreateserial \
        -days "$days" -extfile "$ext" -out "$dir/$name.pem" 2>/dev/null
    rm -f "$ext" "$dir/$name.csr"
}

if [[ ! -f $dir/ca.pem || ! -f $dir/ca-key.pem ]]; then
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days "$days" \
        -subj "/CN=pitch-arena CA" -addext "basicConstraints=critical,CA:TRUE" \
        -addext "keyUsage=critical,keyCertSign,cRLSign" -keyout "$dir/ca-key.pem" -out "$dir/ca.pem" 2>/dev/null
fi
issue server "${names[0]}" "$(alt_names "${names[@]}")" serverAuth
issue referee "$peer" "DNS:$peer" serverAuth,clientAuth
chmod 644 "$dir/ca.pem" "$dir/server.pem" "$dir/referee.pem"
echo "made in $dir: ca.pem (deploy everywhere), server.pem + server-key.pem (referees: PITCH_TLS_CERT/KEY, for ${names[*]}),"
echo "  referee.pem + referee-key.pem (referees only: PITCH_RELAY_CERT/KEY, identity $peer); keep ca-key.pem offline"
