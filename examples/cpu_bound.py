"""CPU-bound: expensive per-sample transforms (decode + augment) burn worker CPU.

Workers help up to about the number of free cores and no further.
"""

import torch
import torch.nn.functional as F
from _common import SmallConvNet, base_parser, parse, train
from torch.utils.data import DataLoader, Dataset


class AugmentedImages(Dataset):
    def __init__(self, size: int, work: int) -> None:
        self.size = size
        self.work = work
        self.kernel = torch.ones(3, 1, 5, 5) / 25

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, i: int):
        g = torch.Generator().manual_seed(i)
        image = torch.rand(1, 3, 64, 64, generator=g)
        for _ in range(self.work):  # stands in for JPEG decode and augmentation
            image = F.conv2d(image, self.kernel, padding=2, groups=3)
        image = F.interpolate(image, size=32, mode="bilinear", align_corners=False)
        return (image[0] * 255).to(torch.uint8), i % 10


if __name__ == "__main__":
    parser = base_parser(__doc__)
    parser.add_argument("--samples", type=int, default=4096)
    parser.add_argument("--work", type=int, default=12)
    args = parse(parser)
    loader = DataLoader(
        AugmentedImages(args.samples, args.work),
        batch_size=args.batch_size,
        shuffle=True,
        num_workers=args.num_workers,
    )
    train(SmallConvNet(), loader, args.epochs, args.lr)
