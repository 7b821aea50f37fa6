"""Training environments on the arena's own engines: PettingZoo AEC and a Gymnasium single-agent env.

    from arena.envs import friday13
    env = friday13.env(players=4)          # also amigo13.env(players=...), board13.env(scenario=...)

    from arena.envs.single import SingleAgentEnv
    env = SingleAgentEnv("friday13", opponents=["heuristic", "random", "random"], players=4)

Observations are numeric (arena.envs.encoding) with the legal actions as a mask; they hold only
what the seat may see, exactly as the wire gives it. Needs the `envs` extra (pettingzoo,
gymnasium, numpy); this package imports none of them itself, so `arena.envs.encoding` needs
only numpy.
"""
