#!/usr/bin/env bash
# The README's first command: set up, build, then run the main job on the bundled dataset.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
host=build/bin/libreyolo-host
"$host" version
"$host" families
# The training loop is not built yet: `train` validates every option, prints the resolved
# configuration and says so (exit code 3). Replace with a real short training once it lands.
"$host" train model=examplen data=datasets/coco16/data.yaml epochs=3 batch=8 || [ $? -eq 3 ]
