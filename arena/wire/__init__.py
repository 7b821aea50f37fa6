"""The wire: between the engines' Python objects and the protocol's messages (arena/v1), for the server and the SDK."""
