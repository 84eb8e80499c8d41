"""What pyproject.toml cannot say: the top-level templates/, static/, sample_traces/ and docs/ folders ship
inside the wheel's `webapp` package (found at run time by webapp.common.resources.resource_dir), with the migrations
and the OpenAPI document."""
from setuptools import find_packages, setup

FOLDERS = ("templates", "static", "sample_traces", "docs")  # docs/: the pages messages name

setup(
    packages=find_packages(include=["webapp*"]) + [f"webapp.{folder}" for folder in FOLDERS],
    package_dir={f"webapp.{folder}": folder for folder in FOLDERS},
    package_data={**{f"webapp.{folder}": ["**/*"] for folder in FOLDERS},
                  "webapp.store.migrations": ["*/*.sql", "*/*.py"], "webapp.web": ["openapi.yaml"]},
)
