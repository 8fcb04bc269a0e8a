"""skorch builds the training DataLoader itself (``NeuralNet.get_iterator``, afresh each epoch)
from the net's ``iterator_train__*`` arguments: the script never calls DataLoader(...)."""

import sys

import torch
from _slow import SlowTrain
from skorch import NeuralNetClassifier


class SlowLabels(SlowTrain):
    """Class labels (long), as the classifier's loss wants them."""

    def __getitem__(self, i: int):
        x, y = super().__getitem__(i)
        return x, y.long()


class Model(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(8, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.lin(x)


if __name__ == "__main__":
    epochs = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    net = NeuralNetClassifier(
        Model,
        criterion=torch.nn.CrossEntropyLoss,
        max_epochs=epochs,
        batch_size=8,
        iterator_train__num_workers=0,
        train_split=None,
        verbose=0,
    )
    net.fit(SlowLabels(size=1024), y=None)
