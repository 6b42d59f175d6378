// The dashboard's script (served from this origin; the CSP allows no inline code): the order page watches its
// payment and reloads when it lands, the usage page draws its charts with Chart.js, and wallet sign-in asks the
// browser's Ethereum wallet to sign a Sign-In with Ethereum message.
(() => {
  const order = document.getElementById('order');
  const statusUrl = order?.dataset.statusUrl;
  if (statusUrl) {
    const poll = async () => {
      try {
        const res = await fetch(statusUrl, { headers: { accept: 'application/json' } });
        if (res.ok) {
          const body = await res.json();
          if (body.status !== 'pending') {
            location.reload();
            return;
          }
        }
      } catch {
        // A network blip: try again on the next tick.
      }
      setTimeout(poll, 1000);
    };
    setTimeout(poll, 1000);
  }

  const data = document.getElementById('chart-data');
  if (data && window.Chart) {
    const series = JSON.parse(data.textContent || '{}');
    const draw = (id, points, horizontal) => {
      const canvas = document.getElementById(id);
      if (!canvas || !points || points.length === 0) return;
      new window.Chart(canvas, {
        type: 'bar',
        data: {
          labels: points.map((p) => p.label),
          datasets: [{ label: 'USD', data: points.map((p) => Number(p.usd)), backgroundColor: '#2f6f5e' }],
        },
        options: {
          indexAxis: horizontal ? 'y' : 'x',
          animation: false,
          maintainAspectRatio: false,
          plugins: { legend: { display: false } },
        },
      });
      canvas.dataset.drawn = 'true';
    };
    draw('chart-day', series.perDay, false);
    draw('chart-model', series.perModel, true);
  }

  const siweButton = document.getElementById('siwe-button');
  const siweForm = document.getElementById('siwe-form');
  if (siweButton && siweForm) {
    siweButton.addEventListener('click', async () => {
      const eth = window.ethereum;
      if (!eth) {
        siweButton.textContent = 'No Ethereum wallet in this browser';
        return;
      }
      const [address] = await eth.request({ method: 'eth_requestAccounts' });
      const chainId = Number.parseInt(await eth.request({ method: 'eth_chainId' }), 16);
      const res = await fetch(
        `/dashboard/siwe/message?address=${encodeURIComponent(address)}&chainId=${chainId}`,
      );
      const { message } = await res.json();
      const signature = await eth.request({ method: 'personal_sign', params: [message, address] });
      siweForm.elements.message.value = message;
      siweForm.elements.signature.value = signature;
      siweForm.submit();
    });
  }
})();
