"""radiant from Python: 3D Gaussian Splatting scenes, rendering and training (C API over ctypes).

    import radiant
    result = radiant.train("data/garden", "runs/garden", steps=7000, eval=True)
    image = result.scene.render(radiant.open_dataset("data/garden").views[0].camera)

`radiant.torch.rasterization` is the rasterizer as a PyTorch autograd function with gsplat's arguments.
"""
from ._core import (Camera, Dataset, Error, InvalidArgument, IoError, NoCuda, OutOfMemory, Progress, Scene,
                    TrainResult, View, cuda_available, open_dataset, set_log_level, train, version,
                    write_demo_dataset)

__all__ = ["Camera", "Dataset", "Error", "InvalidArgument", "IoError", "NoCuda", "OutOfMemory", "Progress",
           "Scene", "TrainResult", "View", "cuda_available", "open_dataset", "set_log_level", "train", "version",
           "write_demo_dataset"]
__version__ = "0.1.0"
