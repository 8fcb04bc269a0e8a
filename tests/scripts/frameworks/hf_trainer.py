"""transformers.Trainer on CPU: a tiny config-built BERT (no download), slow samples, and an
eval loader (batch 4) run every 5 steps, inside the first training epoch.

--report FILE records the train and eval loaders' settings as training goes.
"""

import argparse
import json
import tempfile
import time
from typing import ClassVar

import torch
from torch.utils.data import Dataset
from transformers import (
    BertConfig,
    BertForSequenceClassification,
    Trainer,
    TrainerCallback,
    TrainingArguments,
)


class SlowText(Dataset):
    def __init__(self, size: int, latency_s: float) -> None:
        self.size = size
        self.latency_s = latency_s

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, i: int):
        time.sleep(self.latency_s)
        ids = torch.tensor([(i * 7 + k) % 90 + 5 for k in range(16)])
        return {
            "input_ids": ids,
            "attention_mask": torch.ones(16, dtype=torch.long),
            "labels": i % 2,
        }


class SlowEval(SlowText):
    pass


class Recording(Trainer):
    loaders: ClassVar[dict] = {}

    def get_train_dataloader(self):
        self.loaders["train"] = super().get_train_dataloader()
        return self.loaders["train"]

    def get_eval_dataloader(self, eval_dataset=None):
        self.loaders["eval"] = super().get_eval_dataloader(eval_dataset)
        return self.loaders["eval"]


class Report(TrainerCallback):
    def __init__(self, path: str) -> None:
        self.path = path

    def on_step_end(self, args, state, control, **kwargs):
        if not self.path or "eval" not in Recording.loaders:
            return
        train, ev = Recording.loaders["train"], Recording.loaders["eval"]
        seen = {
            "train_workers": train.num_workers,
            "train_batch_size": train.batch_size,
            "eval_workers": ev.num_workers,
            "eval_batch_size": ev.batch_size,
        }
        with open(self.path, "w") as fh:
            json.dump(seen, fh)


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--latency", type=float, default=0.002)
    p.add_argument("--report", default="")
    p.add_argument("--max-steps", type=int, default=100000)
    p.add_argument("--eval-steps", type=int, default=5)
    args = p.parse_args()
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=100,
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=32,
        num_labels=2,
    )
    model = BertForSequenceClassification(config)
    out = tempfile.mkdtemp(prefix="hf-trainer-")
    training = TrainingArguments(
        output_dir=out,
        per_device_train_batch_size=8,
        per_device_eval_batch_size=4,
        eval_strategy="steps",
        eval_steps=args.eval_steps,
        max_steps=args.max_steps,
        save_strategy="no",
        logging_strategy="no",
        report_to=[],
        use_cpu=True,
        disable_tqdm=True,
        dataloader_num_workers=0,
    )
    trainer = Recording(
        model=model,
        args=training,
        train_dataset=SlowText(4096, args.latency),
        eval_dataset=SlowEval(24, args.latency),
        callbacks=[Report(args.report)],
    )
    trainer.train()
