"""keras-io "Timeseries forecasting for weather prediction" (Prabhanshu Attri, Yashika
Sharma, Kaily Upadhyay, Ebrahim Kargaran), transcribed: the same 7 selected features
normalised, `timeseries_dataset_from_array` windows (float64, 120 hourly steps of the
past 720 ten-minute records), an LSTM(32) regressor, fit with EarlyStopping and
ModelCheckpoint, single-step predictions. The Jena climate CSV download is replaced by a
synthetic DataFrame with its 14 columns (daily and yearly cycles plus noise), 6,000 rows
instead of 420,551, one epoch; matplotlib's plots are left out (not installed)."""

import os
import tempfile

import keras
import numpy as np
import pandas as pd
from probe import module_probe, probe  # noqa: F401  (the user's objects the suite counts)

# In place of keras.utils.get_file(...jena_climate_2009_2016.csv.zip) and pd.read_csv:
rng = np.random.default_rng(2009)
rows = 6000
hours = np.arange(rows) / 6.0
daily = np.sin(2 * np.pi * hours / 24)
yearly = np.sin(2 * np.pi * hours / (24 * 365))
temperature = 9 + 8 * yearly + 4 * daily + rng.normal(0, 1, rows)
df = pd.DataFrame(
    {
        "Date Time": pd.date_range("2009-01-01 00:10", periods=rows, freq="10min").strftime(
            "%d.%m.%Y %H:%M:%S"
        ),
        "p (mbar)": 989 + rng.normal(0, 8, rows),
        "T (degC)": temperature,
        "Tpot (K)": temperature + 273.15 + rng.normal(0, 0.3, rows),
        "Tdew (degC)": temperature - 5 + rng.normal(0, 2, rows),
        "rh (%)": np.clip(76 - 10 * daily + rng.normal(0, 8, rows), 10, 100),
        "VPmax (mbar)": 13 + 6 * yearly + 3 * daily + rng.normal(0, 1, rows),
        "VPact (mbar)": 9.5 + 3 * yearly + rng.normal(0, 1, rows),
        "VPdef (mbar)": np.abs(3.5 + 3 * daily + rng.normal(0, 1, rows)),
        "sh (g/kg)": 6 + 2 * yearly + rng.normal(0, 0.5, rows),
        "H2OC (mmol/mol)": 9.6 + 3 * yearly + rng.normal(0, 0.8, rows),
        "rho (g/m**3)": 1216 - 30 * yearly + rng.normal(0, 10, rows),
        "wv (m/s)": np.abs(rng.normal(2, 1.5, rows)),
        "max. wv (m/s)": np.abs(rng.normal(3.5, 2, rows)),
        "wd (deg)": rng.uniform(0, 360, rows),
    }
)

titles = [
    "Pressure",
    "Temperature",
    "Temperature in Kelvin",
    "Temperature (dew point)",
    "Relative Humidity",
    "Saturation vapor pressure",
    "Vapor pressure",
    "Vapor pressure deficit",
    "Specific humidity",
    "Water vapor concentration",
    "Airtight",
    "Wind speed",
    "Maximum wind speed",
    "Wind direction in degrees",
]

feature_keys = [
    "p (mbar)",
    "T (degC)",
    "Tpot (K)",
    "Tdew (degC)",
    "rh (%)",
    "VPmax (mbar)",
    "VPact (mbar)",
    "VPdef (mbar)",
    "sh (g/kg)",
    "H2OC (mmol/mol)",
    "rho (g/m**3)",
    "wv (m/s)",
    "max. wv (m/s)",
    "wd (deg)",
]

date_time_key = "Date Time"

split_fraction = 0.715
train_split = int(split_fraction * int(df.shape[0]))
step = 6

past = 720
future = 72
learning_rate = 0.001
batch_size = 256
epochs = 1


def normalize(data, train_split):
    data_mean = data[:train_split].mean(axis=0)
    data_std = data[:train_split].std(axis=0)
    return (data - data_mean) / data_std


print(
    "The selected parameters are:",
    ", ".join([titles[i] for i in [0, 1, 5, 7, 8, 10, 11]]),
)
selected_features = [feature_keys[i] for i in [0, 1, 5, 7, 8, 10, 11]]
features = df[selected_features]
features.index = df[date_time_key]
features.head()

features = normalize(features.values, train_split)
features = pd.DataFrame(features)
features.head()

train_data = features.loc[0 : train_split - 1]
val_data = features.loc[train_split:]

start = past + future
end = start + train_split

x_train = train_data[[i for i in range(7)]].values
y_train = features.iloc[start:end][[1]]

sequence_length = int(past / step)

dataset_train = keras.preprocessing.timeseries_dataset_from_array(
    x_train,
    y_train,
    sequence_length=sequence_length,
    sampling_rate=step,
    batch_size=batch_size,
)

x_end = len(val_data) - past - future

label_start = train_split + past + future

x_val = val_data.iloc[:x_end][[i for i in range(7)]].values
y_val = features.iloc[label_start:][[1]]

dataset_val = keras.preprocessing.timeseries_dataset_from_array(
    x_val,
    y_val,
    sequence_length=sequence_length,
    sampling_rate=step,
    batch_size=batch_size,
)


for batch in dataset_train.take(1):
    inputs, targets = batch

print("Input shape:", inputs.numpy().shape)  # BATCH_BREAKPOINT
print("Target shape:", targets.numpy().shape)

inputs = keras.layers.Input(shape=(inputs.shape[1], inputs.shape[2]))
lstm_out = keras.layers.LSTM(32)(inputs)
outputs = keras.layers.Dense(1)(lstm_out)

model = keras.Model(inputs=inputs, outputs=outputs)
model.compile(optimizer=keras.optimizers.Adam(learning_rate=learning_rate), loss="mse")

# Keras 3 wants ".weights.h5" for weights; a temporary folder, not the working directory.
path_checkpoint = os.path.join(tempfile.mkdtemp(), "model_checkpoint.weights.h5")
es_callback = keras.callbacks.EarlyStopping(monitor="val_loss", min_delta=0, patience=5)

modelckpt_callback = keras.callbacks.ModelCheckpoint(
    monitor="val_loss",
    filepath=path_checkpoint,
    verbose=0,
    save_weights_only=True,
    save_best_only=True,
)

history = model.fit(
    dataset_train,
    epochs=epochs,
    validation_data=dataset_val,
    callbacks=[es_callback, modelckpt_callback],
    verbose=0,
)


def show_plot(plot_data, delta, title):
    labels = ["History", "True Future", "Model Prediction"]  # noqa: F841 (the plot's)
    time_steps = list(range(-(plot_data[0].shape[0]), 0))
    if delta:  # noqa: SIM108 (the example's)
        future = delta
    else:
        future = 0
    return time_steps, future  # PLOT_BREAKPOINT (plt.plot(...) in the example)


for x, y in dataset_val.take(2):
    show_plot(
        [x[0][:, 1].numpy(), y[0].numpy(), model.predict(x, verbose=0)[0]],
        12,
        "Single Step Prediction",
    )
