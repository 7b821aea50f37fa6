"""Owners signed in to the web UI: one session per sign-in, held in Redis until it expires or ends.

The web UI acts for a signed-in owner on the node's gRPC API, with the owner's own token, so that
every rule (who may touch which bot, limits, validation) stays in the node. What is kept where:

- the browser holds only the session id, a random 256-bit secret (in an HttpOnly cookie that page
  scripts cannot read);
- Redis holds, under the SHA-256 of the session id, the owner's name and the owner's token sealed
  with AES-256-GCM under a key derived from the session id (HKDF-SHA256) and bound to the record.

So neither side alone yields the token: a reader of Redis (a dump, a replica) finds no key to open
it, and a stolen cookie opens only the session, for as long as it lasts, never the token itself.
No key lives in a process either, so every node's web UI reads the same sessions, and a restarted
web UI keeps them. Signing out deletes the record; a rotated owner token ends every session made
with the old one (the web UI checks the token on each use).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from redis.asyncio import Redis

from arena.store import keys
from arena.store.codec import text

SESSION_SECONDS = 8 * 3600
"""How long a sign-in lasts (from its start; it is not extended by use)."""
_SEAL_INFO = b"arena web session: owner token"
_CSRF_INFO = b"arena web session: csrf"
_NONCE = 12


@dataclass(frozen=True)
class WebSession:
    """A live sign-in: whose, and the owner token the web UI calls the node's API with."""

    owner: str
    token: str
    created_ms: int


def session_hash(session_id: str) -> str:
    """The name a session goes by in Redis: nothing there leads back to the id."""
    return hashlib.sha256(session_id.encode()).hexdigest()


def csrf_token(session_id: str) -> str:
    """The token a signed-in page sends with each change (HMAC of the session id): bound to its session,
    readable by the page's scripts without giving the session id away."""
    return hmac.new(session_id.encode(), _CSRF_INFO, hashlib.sha256).hexdigest()


def _key(session_id: str) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_SEAL_INFO).derive(session_id.encode())


def _bound(owner: str, digest: str) -> bytes:
    """What a sealed token is bound to: it opens only in its own record, for its own owner."""
    return f"{digest}\n{owner}".encode()


class WebSessions:
    """The web UI's sessions in Redis."""

    def __init__(self, redis: Redis, seconds: int = SESSION_SECONDS) -> None:
        self.redis = redis
        self.seconds = seconds

    async def open(self, owner: str, token: str) -> str:
        """A new session for `owner`, whose valid owner token is `token`; returns its id (for the cookie only)."""
        session_id = secrets.token_urlsafe(32)
        digest = session_hash(session_id)
        nonce = secrets.token_bytes(_NONCE)
        sealed = nonce + AESGCM(_key(session_id)).encrypt(nonce, token.encode(), _bound(owner, digest))
        key = keys.web_session(digest)
        pipe = self.redis.pipeline(transaction=True)
        pipe.hset(key, mapping={"owner": owner, "sealed": sealed, "created_ms": int(time.time() * 1000)})
        pipe.expire(key, self.seconds)
        await pipe.execute()
        return session_id

    async def find(self, session_id: str) -> WebSession | None:
        """The live session `session_id` names, or None (unknown, expired, ended, or not opening)."""
        if not session_id:
            return None
        digest = session_hash(session_id)
        found = await self.redis.hgetall(keys.web_session(digest))
        if not found:
            return None
        owner = text(found[b"owner"])
        sealed = found[b"sealed"]
        if isinstance(sealed, str):
            sealed = sealed.encode()
        try:
            token = AESGCM(_key(session_id)).decrypt(sealed[:_NONCE], sealed[_NONCE:], _bound(owner, digest))
        except InvalidTag:
            return None
        return WebSession(owner, token.decode(), int(found[b"created_ms"]))

    async def close(self, session_id: str) -> None:
        """End the session (signing out); nothing happens for one already gone."""
        if session_id:
            await self.redis.delete(keys.web_session(session_hash(session_id)))
