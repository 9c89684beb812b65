"""PPO with action masks on the batched Gymnasium env, CleanRL-style: one file, plain torch.

The policy and value networks are plain ``nn.Sequential`` MLPs, so that at the end
``agents.files.torch_bot.torch_to_bot`` writes them to a bot file, which then plays in a
tournament (``python -m agents.evaluation.evaluate``) and joins a leaderboard (``--leaderboard``)
like any other agent:

    python examples/cleanrl_ppo.py                    # 150,000 steps against random, a few minutes
    python examples/cleanrl_ppo.py --quick            # a smoke test of every step, seconds
    python -m agents.evaluation.evaluate runs/cleanrl_ppo/bot.npz greedy random \\
        --leaderboard runs/cleanrl_ppo/leaderboard.json

The env is ``gymnasium.make_vec("aos_env/AgeOfSummoners-v1", ...)``: all games on one batched
engine state, in SAME_STEP autoreset (a finished game is dealt again within its step, the
convention CleanRL's PPO is written for). The mask comes in ``info["action_mask"]``; illegal
actions get a logit of -1e8, in sampling and in the update alike (CleanRL's invalid-action
masking). Needs the ``train`` extra (torch).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import gymnasium
import numpy as np
import torch
from torch import nn
from torch.distributions.categorical import Categorical

import aos_env  # noqa: F401  registers "aos_env/AgeOfSummoners-v1"
from agents.files.torch_bot import torch_to_bot
from aos_env import core
from aos_env.base.checks import float_arg, int_arg, seed_arg
from aos_env.base.outputs import check_output

ENV_ID = "aos_env/AgeOfSummoners-v1"
MASKED_LOGIT = -1e8  # an illegal action's logit: probability 0, and no NaN in the entropy
#: --quick: the smallest run that still does every step (a few updates, the export, the tournament)
QUICK = {
    "num_envs": 8,
    "num_steps": 16,
    "total_timesteps": 256,
    "update_epochs": 1,
    "num_minibatches": 2,
    "eval_games": 20,
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python examples/cleanrl_ppo.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--players", type=int_arg(2, 4), default=2, help="players per game (default: 2)")
    p.add_argument("--opponents", default="random", help="the env's opponents, agent specs (default: random)")
    p.add_argument(
        "--shaping",
        type=float_arg(0),
        default=0.02,
        help="reward per point of change in the score lead, on top of the win/loss (default: 0.02)",
    )
    p.add_argument("--seed", type=seed_arg, default=0, help="seed of the games and the networks (default: 0)")
    p.add_argument("--total-timesteps", type=int_arg(1), default=150_000, help="env steps in all (default: 150000)")
    p.add_argument("--num-envs", type=int_arg(1), default=128, help="games played at once (default: 128)")
    p.add_argument("--num-steps", type=int_arg(1), default=32, help="steps per game per rollout (default: 32)")
    p.add_argument("--learning-rate", type=float_arg(0, low_open=True), default=3e-4, help="Adam's (default: 3e-4)")
    p.add_argument("--gamma", type=float_arg(0, 1), default=0.99, help="discount (default: 0.99)")
    p.add_argument("--gae-lambda", type=float_arg(0, 1), default=0.95, help="GAE's lambda (default: 0.95)")
    p.add_argument("--num-minibatches", type=int_arg(1), default=4, help="minibatches per epoch (default: 4)")
    p.add_argument("--update-epochs", type=int_arg(1), default=4, help="epochs per rollout (default: 4)")
    p.add_argument("--clip-coef", type=float_arg(0), default=0.2, help="PPO's clipping (default: 0.2)")
    p.add_argument("--ent-coef", type=float_arg(0), default=0.01, help="entropy bonus (default: 0.01)")
    p.add_argument("--vf-coef", type=float_arg(0), default=0.5, help="value loss weight (default: 0.5)")
    p.add_argument("--max-grad-norm", type=float_arg(0, low_open=True), default=0.5, help="(default: 0.5)")
    p.add_argument("--hidden", type=int_arg(1), default=64, help="units of the two hidden layers (default: 64)")
    p.add_argument(
        "--out-dir",
        type=Path,
        default=Path("runs/cleanrl_ppo"),
        help="where the bot file, the tournament and the leaderboard go (default: runs/cleanrl_ppo)",
    )
    p.add_argument(
        "--eval-games",
        type=int_arg(0),
        default=400,
        help="games of the tournament against random and greedy (default: 400; 0: no tournament)",
    )
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="replace the bot file and the tournament results of an earlier run in --out-dir (the "
        "leaderboard pools runs; it tells the bot files apart by their content)",
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="a tiny run that tries every step: " + ", ".join(f"{k.replace('_', '-')} {v}" for k, v in QUICK.items()),
    )
    args = p.parse_args(argv)
    if args.quick:
        for key, value in QUICK.items():
            setattr(args, key, value)
    args.batch_size = args.num_envs * args.num_steps
    if args.batch_size < args.num_minibatches:
        p.error(
            f"argument --num-minibatches: at most num-envs x num-steps = {args.batch_size}, got {args.num_minibatches}"
        )
    args.minibatch_size = args.batch_size // args.num_minibatches
    args.num_iterations = max(1, args.total_timesteps // args.batch_size)
    try:  # before training: an earlier run's bot is not replaced at the end of this one
        check_output("--out-dir", args.out_dir / "bot.npz", args.overwrite, siblings=[args.out_dir / "tournament.json"])
    except ValueError as e:
        p.error(str(e))
    return args


def layer_init(layer: nn.Linear, std: float = np.sqrt(2), bias_const: float = 0.0) -> nn.Linear:
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias_const)
    return layer


def mlp(hidden: int, outputs: int, last_std: float) -> nn.Sequential:
    """Observation -> two tanh layers -> outputs: the form a bot file holds."""
    return nn.Sequential(
        layer_init(nn.Linear(core.OBS_DIM, hidden)),
        nn.Tanh(),
        layer_init(nn.Linear(hidden, hidden)),
        nn.Tanh(),
        layer_init(nn.Linear(hidden, outputs), std=last_std),
    )


class Agent(nn.Module):
    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.critic = mlp(hidden, 1, 1.0)
        self.actor = mlp(hidden, core.NUM_ACTIONS, 0.01)

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x)

    def get_action_and_value(self, x: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None):
        logits = torch.where(mask, self.actor(x), torch.tensor(MASKED_LOGIT))
        probs = Categorical(logits=logits)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)


def train(args: argparse.Namespace) -> tuple[Agent, dict]:
    torch.manual_seed(args.seed)
    envs = gymnasium.make_vec(
        ENV_ID,
        num_envs=args.num_envs,
        num_players=args.players,
        opponents=args.opponents,
        shaping=args.shaping,
        autoreset_mode="SameStep",
    )
    agent = Agent(args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    shape = (args.num_steps, args.num_envs)
    obs = torch.zeros(shape + (core.OBS_DIM,))
    masks = torch.zeros(shape + (core.NUM_ACTIONS,), dtype=torch.bool)
    actions, logprobs, rewards, dones, values = (torch.zeros(shape) for _ in range(5))

    next_obs, info = envs.reset(seed=args.seed)
    next_obs, next_mask = torch.as_tensor(next_obs), torch.as_tensor(info["action_mask"] > 0)
    next_done = torch.zeros(args.num_envs)
    games = wins = 0
    start = time.time()
    for iteration in range(1, args.num_iterations + 1):
        for step in range(args.num_steps):
            obs[step], masks[step], dones[step] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
            values[step], actions[step], logprobs[step] = value.flatten(), action, logprob
            next_obs, reward, terminated, truncated, info = envs.step(action.numpy())
            rewards[step] = torch.as_tensor(reward)
            next_obs, next_mask = torch.as_tensor(next_obs), torch.as_tensor(info["action_mask"] > 0)
            next_done = torch.as_tensor(terminated | truncated, dtype=torch.float32)
            if "final_info" in info:  # SAME_STEP: the results of the games that just ended
                ended = info["final_info"]["_win"]
                games += int(ended.sum())
                wins += int(info["final_info"]["win"][ended].sum())

        with torch.no_grad():  # generalised advantage estimation, as in CleanRL's PPO
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages = torch.zeros_like(rewards)
            lastgaelam = 0
            for t in reversed(range(args.num_steps)):
                nextnonterminal = 1.0 - (next_done if t == args.num_steps - 1 else dones[t + 1])
                nextvalues = next_value if t == args.num_steps - 1 else values[t + 1]
                delta = rewards[t] + args.gamma * nextvalues * nextnonterminal - values[t]
                advantages[t] = lastgaelam = delta + args.gamma * args.gae_lambda * nextnonterminal * lastgaelam
            returns = advantages + values

        b_obs, b_masks = obs.reshape(-1, core.OBS_DIM), masks.reshape(-1, core.NUM_ACTIONS)
        b_actions, b_logprobs = actions.reshape(-1), logprobs.reshape(-1)
        b_advantages, b_returns = advantages.reshape(-1), returns.reshape(-1)
        order = np.arange(args.batch_size)
        for _ in range(args.update_epochs):
            np.random.default_rng(args.seed + iteration).shuffle(order)
            for begin in range(0, args.batch_size, args.minibatch_size):
                mb = order[begin : begin + args.minibatch_size]
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(
                    b_obs[mb], b_masks[mb], b_actions.long()[mb]
                )
                ratio = (newlogprob - b_logprobs[mb]).exp()
                mb_adv = b_advantages[mb]
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                pg_loss = torch.max(
                    -mb_adv * ratio, -mb_adv * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)
                ).mean()
                v_loss = 0.5 * ((newvalue.view(-1) - b_returns[mb]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
        steps = iteration * args.batch_size
        print(
            f"iteration {iteration}/{args.num_iterations}: {steps} steps, {games} games, "
            f"win rate {wins / max(games, 1):.1%}, {steps / (time.time() - start):.0f} steps/s",
            flush=True,
        )
    envs.close()
    return agent, {"steps": args.num_iterations * args.batch_size, "games": games, "wins": wins}


def main(argv: list[str] | None = None) -> Path:
    args = parse_args(argv)
    torch.set_num_threads(1)  # the env and the network take turns on the same cores
    agent, stats = train(args)
    info = {"trainer": "examples/cleanrl_ppo.py", "opponents": args.opponents, **stats}
    bot = torch_to_bot(agent.actor, args.out_dir / "bot.npz", num_players=args.players, value=agent.critic, info=info)
    print(f"wrote {bot}")
    if args.eval_games:
        command = [
            sys.executable,
            "-m",
            "agents.evaluation.evaluate",
            str(bot),
            "random",
            "greedy",
            "--players",
            str(args.players),
            "--games",
            str(args.eval_games),
            "--seed",
            str(args.seed),
            "--json",
            str(args.out_dir / "tournament.json"),
            "--leaderboard",
            str(args.out_dir / "leaderboard.json"),
            "--no-progress",
            *(["--overwrite"] if args.overwrite else []),
        ]
        print("$ python", " ".join(command[1:]), flush=True)
        subprocess.run(command, check=True)
    return bot


if __name__ == "__main__":
    from aos_env.base.cli import run_cli

    run_cli(main, "python examples/cleanrl_ppo.py", expected=(subprocess.CalledProcessError,))
