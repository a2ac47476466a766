"""The table's OLED: luma.oled's SSD1306/SH1106 sending only what changed, and its
simulated twin, a fake I2C bus that decodes the chip's command stream."""
