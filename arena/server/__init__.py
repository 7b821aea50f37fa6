"""The gRPC arena: bot sessions, matches between them, the people's API, and their conversions."""
