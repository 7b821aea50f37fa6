"""Code generated from proto/arena/v1 by scripts/generate_proto.py. Do not edit."""
