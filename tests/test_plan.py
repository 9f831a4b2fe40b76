"""`gengpu plan`: every figure comes from the dated price table, and quotas sum over the fleet."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent


def table():
    return yaml.safe_load((REPO / "gengpu" / "data" / "prices-documented.yaml").read_text())


def test_a_gke_machine_is_priced_whole_from_the_cloud_billing_catalog(repo, run):
    """gke-dra's L4 pool: 4 nodes of g2-standard-8 in us-central1, each at the machine's price derived from the
    Cloud Billing Catalog (vCPUs, memory and the L4 together). A DRA claim gets a whole GPU, so a slice of this
    time-sliced DRA pool costs a GPU: its 2 replicas are clients of one claim, not pods per GPU."""
    od, spot = (round(x, 5) for x in table()["gkeBilling"]["prices"]["g2-standard-8"]["us-central1"])  # as synced
    report = json.loads(run("plan", "profiles/gke-dra.yaml", "--output", "json").output)
    pool = next(p for p in report["pools"] if p["pool"] == "l4-shared")
    assert pool["gpus"] == {"min": 0, "max": 4, "boundBy": "limits.nodes"}
    assert (pool["nodeShapes"][0]["onDemandPerHour"], pool["nodeShapes"][0]["spotPerHour"]) == (od, spot)
    assert pool["monthlyAtLimit"]["on-demand"] == {"low": round(4 * od * 730, 4), "high": round(4 * od * 730, 4)}
    assert pool["slicesPerGpu"] == 1 and pool["perSliceHour"]["on-demand"]["low"] == round(od, 4)
    assert pool["quota"] == {"unit": "GPUs", "needed": {"NVIDIA_L4_GPUS": 4}}
    assert set(report["sources"]) == {"cloud-billing-gcp"} and report["sources"]["cloud-billing-gcp"]["commit"] == \
        table()["gkeBilling"]["source"]["commit"]
    mig = next(p for p in report["pools"] if p["pool"] == "a100-mig")
    assert mig["slicesPerGpu"] == 7  # all-1g.5gb on an A100 40GB


def test_unlike_mig_slices_are_priced_by_their_compute_share(repo, run):
    """eks-h100-mig splits each H100 into 3g.40gb + 2g.20gb + 2 x 1g.10gb: 7 compute slices. A 3g device carries
    3/7 of the GPU's price, a 1g device 1/7; no average over unlike devices."""
    report = json.loads(run("plan", "profiles/eks-h100-mig.yaml", "--output", "json").output)
    pool = report["pools"][0]
    per_gpu = pool["perGpuHour"]["on-demand"]["low"]
    shares = {sl["name"]: (sl["perGpu"], sl["shareOfGpu"], sl["perHour"]["on-demand"]["low"]) for sl in pool["slices"]}
    assert shares == {"3g.40gb": (1, round(3 / 7, 4), round(per_gpu * 3 / 7, 4)),
                      "2g.20gb": (1, round(2 / 7, 4), round(per_gpu * 2 / 7, 4)),
                      "1g.10gb": (2, round(1 / 7, 4), round(per_gpu / 7, 4))}
    assert pool["perSliceHour"]["on-demand"] is None  # unlike slices have no one price
    out = run("plan", "profiles/eks-h100-mig.yaml").output
    assert (f"  per slice-hour: on-demand 3g.40gb ${per_gpu * 3 / 7:,.2f}, 2g.20gb ${per_gpu * 2 / 7:,.2f}, "
            f"1g.10gb ${per_gpu / 7:,.2f} (1 x 3g.40gb + 1 x 2g.20gb + 2 x 1g.10gb/GPU)\n") in out


def test_gke_accelerator_optimized_machines_cost_what_the_billing_catalog_says():
    """The SkyPilot sum priced a3-highgpu-8g at 43.07 USD/h in us-central1 (a discounted H100 SKU, 4.20 per
    GPU-hour); the Cloud Billing Catalog's machine price, GPUs and bundled local SSD included, is 88.49. Every GKE
    machine type the billing source covers is priced from it, in no region from the SkyPilot sum."""
    prices = yaml.safe_load((REPO / "gengpu" / "data" / "prices.yaml").read_text())["gke"]
    billing = table()["gkeBilling"]["prices"]
    assert prices["a3-highgpu-8g"]["us-central1"]["onDemand"] == 88.49
    assert prices["a3-highgpu-8g"]["us-central1"]["onDemandFrom"] == "cloud-billing-gcp"
    for name, regions in prices.items():
        if name in billing:
            assert set(regions) <= set(billing[name]), name
            assert {row["onDemandFrom"] for row in regions.values()} == {"cloud-billing-gcp"}, name


def test_a_spot_price_is_never_the_on_demand_price():
    """SkyPilot's catalogs repeat the on-demand price where a region has no spot offer (p4d.24xlarge in ap-south-1):
    such a figure is not a spot price, and plan would show on-demand as spot."""
    prices = yaml.safe_load((REPO / "gengpu" / "data" / "prices.yaml").read_text())
    eks = table()["eks"]["prices"]["p4d.24xlarge"]["ap-south-1"]
    assert eks[0] == eks[1]  # the source row
    assert "spot" not in prices["eks"]["p4d.24xlarge"]["ap-south-1"]
    for cloud in ("eks", "aks", "gke"):
        for name, regions in prices[cloud].items():
            for region, row in regions.items():
                if "spot" in row and "onDemand" in row:
                    assert row["spot"] < row["onDemand"], (cloud, name, region)


def test_aks_spot_is_priced(repo, run):
    """A spot AKS pool gets a spot price from the pinned Azure catalog, not an empty column."""
    spot = table()["aksSpot"]["prices"]["Standard_NC4as_T4_v3"]["eastus"]
    text = (repo / "profiles" / "aks-t4-timeslicing.yaml").read_text()
    (repo / "profiles" / "aks-t4-timeslicing.yaml").write_text(
        text.replace("      capacityTypes: [on-demand]\n", "      capacityTypes: [spot]\n", 1))
    report = json.loads(run("plan", "profiles/aks-t4-timeslicing.yaml", "--output", "json").output)
    assert report["pools"][0]["nodeShapes"][0]["spotPerHour"] == round(spot, 5)
    assert "catalog-azure-spot" in report["sources"]


def test_quota_sums_over_the_fleet_per_region(repo, run):
    """Two clusters in one region: their On-Demand G quota needs add up; the text says what to request."""
    text = (repo / "profiles" / "eks-l4-mps.yaml").read_text()
    (repo / "profiles" / "eks-l4-mps-2.yaml").write_text(text.replace("name: eks-l4-mps", "name: eks-l4-mps-2"))
    report = json.loads(run("plan", "--output", "json").output)
    fleet = {(q["region"], q["quota"]): (q["needed"], q["documentedDefault"]) for q in report["fleet"]["quota"]}
    # 8 GPUs each, the larger shape g6.2xlarge has 8 vCPUs per GPU: 64 vCPUs per cluster
    assert fleet[("us-east-1", "Running On-Demand G and VT instances (L-DB2E81BA)")] == (128, 0)
    out = run("plan").output
    assert "  eks us-east-1: Running On-Demand G and VT instances (L-DB2E81BA): 128 (documented default 0)\n" in out
    assert "Estimates from list prices" in out
    assert "  per month at the limit: no limit: Autopilot buys what the workloads request\n" in out
    assert "  per month at the limit: no limit here: set limits.nodes (the node pool's maximum)\n" in out  # AKS


def test_an_unpriced_type_is_named_not_guessed(repo, run):
    """p3 has no row in ap-south-1 in either source: plan says so instead of inventing a figure."""
    out = run("plan", "profiles/eks-spot-ondemand.yaml").output
    assert "  eks-spot-ondemand/gpu: no price for p3.2xlarge, p3.8xlarge, p3.16xlarge in ap-south-1\n" in out


@pytest.mark.skipif(shutil.which("go") is None, reason="scripts/sync-prices reads Go modules")
def test_price_table_is_the_sync_scripts_output():
    """gengpu/data/prices.yaml is scripts/sync-prices' output from its pinned sources, unedited."""
    proc = subprocess.run([sys.executable, str(REPO / "scripts" / "sync-prices"), "--check"], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr


def test_an_n1_machine_is_priced_with_the_gpus_attached_to_it(repo, run):
    """GCE N1 machines carry attached GPUs priced apart: a T4 pool on n1-standard-8 costs the machine's row plus
    one T4's, on-demand and spot (the catalog's rows, transcribed)."""
    shutil.copy(REPO / "tests" / "fixtures" / "profiles" / "gke-native-sharing.yaml", repo / "profiles")
    gke = table()["gke"]["prices"]
    machine, t4 = gke["n1-standard-8"]["us-central1"], gke["accelerator:T4"]["us-central1"]
    report = json.loads(run("plan", "profiles/gke-native-sharing.yaml", "--output", "json").output)
    shape, = report["pools"][0]["nodeShapes"]
    assert (shape["type"], shape["gpus"]) == ("n1-standard-8", 1)
    assert (shape["onDemandPerHour"], shape["spotPerHour"]) == (round(machine[0] + t4[0], 5),
                                                              round(machine[1] + t4[1], 5))


def test_an_azure_family_without_a_documented_display_name_is_named_by_its_api_name(tmp_path, run):
    """quotas.yaml knows the ND H200 v5 family only by its API name (standardNDISRH200V5Family, what
    `az vm list-usage` lists as name.value). The plan named its quota None before, and a fleet that also needed
    the Spot quota crashed sorting it."""
    profile = (
        "apiVersion: gengpu.dev/v1alpha1\nkind: GPUProfile\nmetadata: {name: h200}\nspec:\n  platform: aks\n"
        "  region: eastus2\n  kubernetesVersion: \"1.30\"\n  nodePools:\n    - name: p0\n      gpu: H200-141GB\n"
        "      instanceTypes: [Standard_ND96isr_H200_v5]\n      capacityTypes: [spot, on-demand]\n"
        "      limits: {nodes: 2}\n      sharing: {mode: none}\n"
        "  argocd: {repoURL: \"https://github.com/example/gitops.git\"}\n")
    (tmp_path / "h200.yaml").write_text(profile)
    report = json.loads(run("plan", "h200.yaml", "--output", "json", cwd=tmp_path).stdout)
    assert report["pools"][0]["quota"] == {"unit": "vCPUs", "needed": {
        "standardNDISRH200V5Family": 192, "Total Regional Low-priority vCPUs": 192}}


def test_every_azure_family_names_its_quota():
    """A quota needs a name to be requested: a display name, or at least the API name."""
    quotas = yaml.safe_load((REPO / "gengpu" / "data" / "quotas.yaml").read_text())
    assert all(f["quota"] or f["apiName"] for f in quotas["azure"]["families"])
