"""The node runtime: sessions and seats, the match host, the work stream, relays, the ladder, tournaments
and hosted bots, behind the gRPC edge (arena/server) and the web (arena/web)."""
